/**
 * The watchdog: one timer per client renews every held watchdog lease in batches. Internal: may
 * change without notice.
 */
package io.latchkey.internal.watchdog;
