/**
 * RedLock: one {@link io.latchkey.DistributedLock} over several independent Redis masters, held
 * only while a majority of them hold it. See {@link io.latchkey.redlock.RedLock}.
 */
package io.latchkey.redlock;
