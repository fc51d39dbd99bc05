/**
 * The client: connections per topology, the lock kinds it serves, and their lifecycle.
 * Internal: may change without notice.
 */
package io.latchkey.internal.client;
