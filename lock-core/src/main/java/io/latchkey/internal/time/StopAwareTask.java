package io.latchkey.internal.time;

import io.netty.util.TimerTask;

/**
 * A task of the client's timer that someone waits for: if the timer stops before the task is
 * due (the client closes), the timer drops it unrun, and it is told so here instead, so that
 * the wait ends rather than hangs.
 */
public interface StopAwareTask extends TimerTask {

    /** The timer stopped before this task ran, and it never will. Never blocks. */
    void timerStopped();
}
