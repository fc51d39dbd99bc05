/**
 * The client's clock: {@link io.latchkey.spi.Ticker}, read wherever a deadline or an
 * elapsed time is measured, so that tests can drive it by hand. Internal: may change without notice.
 */
package io.latchkey.internal.time;
