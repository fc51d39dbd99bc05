/**
 * Latchkey core: {@link io.latchkey.LockClient}, the reentrant lock, the watchdog and the
 * machinery that other lock kinds build on.
 */
module io.latchkey.core {
    // Not transitive: no public signature of io.latchkey mentions a Lettuce type, so an
    // application needs Lettuce on its module path but not in its own module-info.
    requires lettuce.core;
    requires io.netty.common;
    // Lettuce is an automatic module: it cannot say that it needs Netty's transport, handler and
    // DNS resolver (which bring codec, buffer and resolver along). Without these, an application
    // on the module path would have to resolve them itself (--add-modules) or fail to connect.
    requires io.netty.transport;
    requires io.netty.handler;
    requires io.netty.resolver.dns;
    requires reactor.core;
    requires org.slf4j;
    // @Nullable in the API's signatures: compile-time only, as JSpecify advises.
    requires static transitive org.jspecify;

    exports io.latchkey;
    exports io.latchkey.internal.client to io.latchkey.fair, io.latchkey.redlock;
    exports io.latchkey.internal.events to io.latchkey.fair, io.latchkey.redlock;
    exports io.latchkey.internal.hold to io.latchkey.fair, io.latchkey.redlock;
    exports io.latchkey.internal.lock to io.latchkey.fair, io.latchkey.redlock;
    exports io.latchkey.internal.redis to io.latchkey.fair, io.latchkey.redlock;
    exports io.latchkey.internal.time to io.latchkey.fair, io.latchkey.redlock;
    exports io.latchkey.internal.wakeup to io.latchkey.fair, io.latchkey.redlock;
    exports io.latchkey.internal.watchdog to io.latchkey.fair, io.latchkey.redlock;

    uses io.latchkey.internal.client.LockKindProvider;
}
