/**
 * Latchkey for Spring Boot: a {@link io.latchkey.LockClient} bean from {@code latchkey.*}
 * properties, the {@link io.latchkey.spring.Locked @Locked} annotation, meters and a health
 * contributor. Public: {@link io.latchkey.spring.Locked}, {@link io.latchkey.spring.CurrentLock},
 * {@link io.latchkey.spring.LockNotAcquiredException}, {@link io.latchkey.spring.LatchkeyProperties}
 * and the auto-configuration; the rest is package-private.
 */
package io.latchkey.spring;
