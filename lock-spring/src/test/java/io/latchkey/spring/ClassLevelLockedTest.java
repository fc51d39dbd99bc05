package io.latchkey.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.latchkey.DistributedLock;
import io.latchkey.LockClient;
import io.latchkey.testing.RedisServer;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** {@code @Locked} on a class (issue 24): its own public methods are locked, Object's are not. */
class ClassLevelLockedTest {

    private static RedisServer redis;
    private static ConfigurableApplicationContext app;
    private static LockClient other;

    @BeforeAll
    static void start() {
        redis = RedisServer.start();
        app = TestApplication.run(Beans.class, "latchkey.address=" + redis.uri());
        other = LockClient.create(redis.uri());
    }

    @AfterAll
    static void stop() {
        if (app != null) {
            app.close();
        }
        if (other != null) {
            other.close();
        }
        if (redis != null) {
            redis.close();
        }
    }

    @Test
    void objectsMethodsAreNotLocked() throws Exception {
        Ledger ledger = app.getBean(Ledger.class);
        DistributedLock held = other.getLock("ledger");
        held.lockAsync(99L).get(5, TimeUnit.SECONDS);
        try {
            // The lock stays held elsewhere: a locked call would throw after its 200 ms.
            assertThat(ledger.toString()).isEqualTo("the ledger");
            assertThat(ledger.equals(ledger)).isTrue();
            assertThat(ledger.hashCode()).isEqualTo(ledger.hashCode());
            assertThatThrownBy(ledger::balance).isInstanceOf(LockNotAcquiredException.class).hasMessageContaining("'ledger'");
        } finally {
            held.unlockAsync(99L).get(5, TimeUnit.SECONDS);
        }
        assertThat(ledger.balance()).isEqualTo("ledger");
    }

    @Test
    void eachClassLocksAnInheritedMethodWithItsOwnAnnotation() {
        assertThat(app.getBean(NightlyJob.class).run()).isEqualTo("jobs:nightly");
        assertThat(app.getBean(HourlyJob.class).run()).isEqualTo("jobs:hourly");
    }

    @Configuration(proxyBeanMethods = false)
    static class Beans {

        @Bean
        Ledger ledger() {
            return new Ledger();
        }

        @Bean
        NightlyJob nightlyJob() {
            return new NightlyJob();
        }

        @Bean
        HourlyJob hourlyJob() {
            return new HourlyJob();
        }
    }

    /** Every public method of its own runs under the lock {@code ledger}. */
    @Locked(name = "ledger", waitTime = "200ms")
    public static class Ledger {

        /** @return the name of the lock it ran under */
        public String balance() {
            return CurrentLock.hold().orElseThrow().lock().getName();
        }

        @Override
        public String toString() {
            return "the ledger";
        }
    }

    /** A method that subclasses inherit, each locking it under its own class annotation. */
    public abstract static class Job {

        /** @return the name of the lock it ran under */
        public String run() {
            return CurrentLock.hold().orElseThrow().lock().getName();
        }
    }

    /** A job under {@code jobs:nightly}. */
    @Locked(name = "jobs:nightly")
    public static class NightlyJob extends Job {
    }

    /** A job under {@code jobs:hourly}. */
    @Locked(name = "jobs:hourly")
    public static class HourlyJob extends Job {
    }
}
