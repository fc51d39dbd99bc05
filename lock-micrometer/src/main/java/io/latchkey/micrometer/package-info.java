/**
 * Latchkey's lock events through Micrometer: as meters ({@link io.latchkey.micrometer.MicrometerLockEvents})
 * and as Observations, for traces ({@link io.latchkey.micrometer.LockObservations}, with its contexts
 * and conventions).
 */
package io.latchkey.micrometer;
