/**
 * The client's clock: {@link io.latchkey.internal.time.Ticker}, read wherever a deadline or an
 * elapsed time is measured, so that tests can drive it by hand. Internal: may change without notice.
 */
package io.latchkey.internal.time;
