package io.latchkey;

import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.Tag;

/**
 * Marks a test class (or one test of a class whose other tests need no such care) that asserts a
 * time bound tight enough that the four JVMs of the first pass beside it on a busy 2-core machine
 * were seen to break it, or that is CPU-bound (a race run thousands of times, ArchUnit's import of
 * the main code) and would starve them. lock-tests' pom runs these in a pass of their own after
 * the others, in two JVMs.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.TYPE, ElementType.METHOD})
@Inherited
@Tag("timing-bound")
public @interface TimingBound {
}
