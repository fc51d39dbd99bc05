/**
 * The client's record of the holds its owners have: one {@link io.latchkey.internal.hold.Hold}
 * per owner and lock, with its fencing token, its lease as last confirmed by Redis, and the notice
 * of its loss. Internal: may change in any release.
 */
package io.latchkey.internal.hold;
