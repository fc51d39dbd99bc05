package io.latchkey;

import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.Tag;

/**
 * Marks a test class that asserts a time bound tight enough that a second test JVM beside it on
 * a busy 2-core machine was seen to break it, or that is CPU-bound (a race run thousands of times,
 * ArchUnit's import of the main code) and would starve the other JVMs. lock-tests' pom runs
 * these classes in a pass of their own, one at a time, after the others, which run in four JVMs.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
@Inherited
@Tag("timing-bound")
public @interface TimingBound {
}
