/**
 * The fault harness ({@code latchkey-faults.jar}): worker JVMs contend on a few locks while the
 * harness kills, freezes and disconnects them and their Redis, and a separate checker Redis
 * checks mutual exclusion and fencing from outside the lock. Entry point:
 * {@link io.latchkey.faults.FaultHarness#main(String[])}; each worker runs
 * {@link io.latchkey.faults.FaultWorker#main(String[])}. Not an API; may change at any time.
 */
package io.latchkey.faults;
