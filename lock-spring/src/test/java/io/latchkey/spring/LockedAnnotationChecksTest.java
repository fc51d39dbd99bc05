package io.latchkey.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.latchkey.testing.RedisServer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * {@code @Locked} annotations that cannot work (issue 24): those whose fault shows in the method
 * fail the application's start, naming the method; a name part that is empty at a call fails that
 * call, naming the method and the expression, instead of locking one name for every call.
 */
class LockedAnnotationChecksTest {

    private static RedisServer redis;

    @BeforeAll
    static void start() {
        redis = RedisServer.start();
    }

    @AfterAll
    static void stop() {
        if (redis != null) {
            redis.close();
        }
    }

    @Test
    void skipOnAMethodReturningAPrimitiveFailsTheStart() {
        assertThatThrownBy(() -> start(PrimitiveSkip.class)).rootCause().isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("@Locked on public int " + Counter.class.getName() + ".next()")
                .hasMessageContaining("onTimeout = SKIP");
    }

    @Test
    void aMisspelledParameterFailsTheStart() {
        assertThatThrownBy(() -> start(MisspelledParameter.class)).rootCause().isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("@Locked on public void " + Shipping.class.getName() + ".ship(java.lang.String)")
                .hasMessageContaining("'orders:#{#orderID}'")
                .hasMessageContaining("refers to #orderID, which is not a parameter of the method (its parameters: #orderId)");
    }

    @Test
    void anArgumentIndexPastTheParametersFailsTheStart() {
        assertThatThrownBy(() -> start(IndexPastTheParameters.class)).rootCause().isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("@Locked on public void " + Billing.class.getName() + ".bill(java.lang.String)")
                .hasMessageContaining("'invoices:#{#p1}' refers to #p1, the argument at position 1 (from 0), but the method has 1 parameter");
    }

    @Test
    void aPartThatIsNullOrEmptyAtACallFailsThatCall() throws Exception {
        try (ConfigurableApplicationContext app = start(EmptyParts.class)) {
            Notes notes = app.getBean(Notes.class);
            String method = "@Locked on public java.lang.String " + Notes.class.getName() + ".write(" + Note.class.getName() + ")";
            assertThatThrownBy(() -> notes.write(new Note(null))).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining(method).hasMessageContaining("'notes:#{#note.topic}'")
                    .hasMessageContaining("#{#note.topic} is null");
            assertThatThrownBy(() -> notes.write(new Note(""))).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining(method).hasMessageContaining("#{#note.topic} is empty");
            // An asynchronous method says it in its future.
            CompletableFuture<String> later = notes.later(null);
            assertThatThrownBy(() -> later.get(5, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                    .cause().isInstanceOf(IllegalStateException.class).hasMessageContaining(".later(java.lang.String)")
                    .hasMessageContaining("'notes:#{#topic}'");
            assertThat(notes.runs()).isZero();

            assertThat(notes.write(new Note("groceries"))).isEqualTo("notes:groceries");
            assertThat(notes.later("groceries").get(5, TimeUnit.SECONDS)).isEqualTo("notes:groceries");
        }
    }

    private static ConfigurableApplicationContext start(Class<?> beans) {
        return TestApplication.run(beans, "latchkey.address=" + redis.uri());
    }

    @Configuration(proxyBeanMethods = false)
    static class PrimitiveSkip {
        @Bean
        Counter counter() {
            return new Counter();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class MisspelledParameter {
        @Bean
        Shipping shipping() {
            return new Shipping();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class IndexPastTheParameters {
        @Bean
        Billing billing() {
            return new Billing();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class EmptyParts {
        @Bean
        Notes notes() {
            return new Notes();
        }
    }

    /** SKIP cannot return nothing from an {@code int}. */
    public static class Counter {
        private int next;

        @Locked(name = "counter", onTimeout = Locked.OnTimeout.SKIP)
        public int next() {
            return ++next;
        }
    }

    /** {@code #orderID} is not {@code orderId}: every order would share the lock {@code orders:}. */
    public static class Shipping {
        @Locked(name = "orders:#{#orderID}")
        public void ship(String orderId) {
        }
    }

    /** {@code #p1} is the second argument, and there is one. */
    public static class Billing {
        @Locked(name = "invoices:#{#p1}")
        public void bill(String invoiceId) {
        }
    }

    /** A note. @param topic what it is about */
    public record Note(String topic) {
    }

    /** Names whose part comes from an argument that may be null or empty. */
    public static class Notes {
        private final AtomicInteger runs = new AtomicInteger();

        @Locked(name = "notes:#{#note.topic}")
        public String write(Note note) {
            runs.incrementAndGet();
            return CurrentLock.hold().orElseThrow().lock().getName();
        }

        @Locked(name = "notes:#{#topic}")
        public CompletableFuture<String> later(String topic) {
            runs.incrementAndGet();
            return CompletableFuture.completedFuture(CurrentLock.hold().orElseThrow().lock().getName());
        }

        /** @return how often a locked method ran */
        public int runs() {
            return runs.get();
        }
    }
}
