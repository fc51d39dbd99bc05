package io.latchkey.testing;

import java.util.concurrent.CompletableFuture;
import java.util.function.Predicate;

/**
 * One armed {@link FaultProxy} fault: which command's reply to swallow, how to cut the
 * connection then, and the future that tells the test it happened. The proxy hands it to the
 * first connection that forwards a matching command; from then on it belongs to that connection.
 *
 * @param command tests a command's raw RESP bytes, read as ISO-8859-1
 * @param how how the connection is cut once the reply arrives
 * @param done completes when the reply was swallowed and both sides were cut
 */
record ReplyDrop(Predicate<String> command, FaultProxy.Disconnect how, CompletableFuture<Void> done) {

    boolean matches(String rawCommand) {
        return command.test(rawCommand);
    }
}
