package io.latchkey.contract;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a contract row whose outcome the client decides above the lock kind's protocol: another
 * form of a call whose round trips an unmarked row already makes (tryLock(wait, lease) beside
 * lock(lease), acquire beside lock), an interrupt or a cancel (they end the same acquisition,
 * whose release is the unlock's), an argument check, the bookkeeping of a hold or of a lost one.
 * Neither the topology nor the server version reaches such a row, so {@link VariantRows} runs it
 * only in each kind's own contract class, and the variants of a kind run the other rows.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
public @interface ClientSideRow {
}
