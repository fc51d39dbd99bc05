package io.latchkey.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.latchkey.LockEventListener;
import io.latchkey.LockEventListener.AcquireEnded;
import io.latchkey.LockEventListener.AcquireOutcome;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/** The composite of the application's listener beans. */
class CompositeLockEventListenerTest {

    @Test
    void aListenerThatThrowsDoesNotKeepTheEventFromTheListenersAfterIt() {
        List<Object> told = new CopyOnWriteArrayList<>();
        LockEventListener throwing = new LockEventListener() {
            @Override
            public void acquireEnded(AcquireEnded event) {
                throw new IllegalStateException("a broken meters listener");
            }
        };
        LockEventListener recording = new LockEventListener() {
            @Override
            public void acquireEnded(AcquireEnded event) {
                told.add(event);
            }
        };
        AcquireEnded event = new AcquireEnded("a", "plain", 1, Duration.ZERO, AcquireOutcome.ACQUIRED, 1);

        CompositeLockEventListener.of(List.of(throwing, recording)).acquireEnded(event);

        assertThat(told).containsExactly(event);
    }
}
