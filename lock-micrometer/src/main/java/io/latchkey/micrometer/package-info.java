/**
 * Latchkey's lock events as Micrometer meters: {@link io.latchkey.micrometer.MicrometerLockEvents}.
 */
package io.latchkey.micrometer;
