/**
 * Spring Integration interoperability, used only when Spring Integration is on the class path:
 * Latchkey's locks as a {@link org.springframework.integration.support.locks.LockRegistry}.
 */
package io.latchkey.spring.integration;
