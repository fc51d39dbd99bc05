package io.latchkey.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.reflect.Method;
import org.junit.jupiter.api.Test;
import org.springframework.context.expression.MethodBasedEvaluationContext;
import org.springframework.core.ParameterNameDiscoverer;

/**
 * The name template of a method whose parameter names were not compiled in (no
 * {@code -parameters}), which the Spring tests cannot make: their classes are compiled with it.
 */
class LockNameTemplateTest {

    /** As the discoverer answers for a class compiled without {@code -parameters}. */
    private static final ParameterNameDiscoverer NO_NAMES = new ParameterNameDiscoverer() {
        @Override
        public String[] getParameterNames(Method method) {
            return null;
        }

        @Override
        public String[] getParameterNames(java.lang.reflect.Constructor<?> constructor) {
            return null;
        }
    };

    @Test
    void withoutParameterNamesANameIsCheckedAtTheCallAndThePositionsAtTheStart() throws Exception {
        Method ship = Orders.class.getMethod("ship", String.class);
        LockNameTemplate byName = LockNameTemplate.parse(ship, "orders:#{#orderId}", null); // cannot be told yet
        assertThatThrownBy(() -> byName.evaluate(context(ship, "42"))).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("@Locked on public void " + Orders.class.getName() + ".ship(java.lang.String)")
                .hasMessageContaining("the part #{#orderId} is null at this call")
                .hasMessageContaining("is #orderId a parameter of the method?")
                .hasMessageContaining("-parameters");

        assertThat(LockNameTemplate.parse(ship, "orders:#{#p0}:#{#a0.length()}:#{#root.getClass().simpleName}", null)
                .evaluate(context(ship, "42"))).isEqualTo("orders:42:2:Orders");
        assertThatThrownBy(() -> LockNameTemplate.parse(ship, "orders:#{#a1}", null)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("refers to #a1, the argument at position 1 (from 0), but the method has 1 parameter");
    }

    @Test
    void anEmptyOrUnparsableNameFailsAtTheStart() throws Exception {
        Method ship = Orders.class.getMethod("ship", String.class);
        assertThatThrownBy(() -> LockNameTemplate.parse(ship, "", new String[] {"orderId"}))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("the name is empty");
        assertThatThrownBy(() -> LockNameTemplate.parse(ship, "orders:#{#orderId", new String[] {"orderId"}))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("does not parse");
    }

    private static MethodBasedEvaluationContext context(Method method, Object... arguments) {
        return new MethodBasedEvaluationContext(new Orders(), method, arguments, NO_NAMES);
    }

    /** A bean with one parameter. */
    public static class Orders {
        /** @param orderId the order */
        public void ship(String orderId) {
        }
    }
}
