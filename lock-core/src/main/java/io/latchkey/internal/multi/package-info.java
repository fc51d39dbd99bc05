/**
 * The multi-lock ({@link io.latchkey.LockClient#getMultiLock}): all-or-none holds of several
 * locks of any kinds and clients, taken one at a time in an order that every multi-lock over the
 * same locks agrees on. Internal: may change in any release.
 */
package io.latchkey.internal.multi;
