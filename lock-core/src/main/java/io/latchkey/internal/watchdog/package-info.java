/**
 * The watchdog: on the client's one timer, renews every hold that has a watchdog-leased level, in
 * batches per Redis (per hash slot in a Cluster). Renewal starts when the acquire loop records a
 * grant, and a level stops counting the moment its release is asked for. Internal: may
 * change without notice.
 */
package io.latchkey.internal.watchdog;
