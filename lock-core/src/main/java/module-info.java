/**
 * Latchkey core: {@link io.latchkey.LockClient}, the reentrant lock, the watchdog and the
 * machinery that other lock kinds build on.
 */
// "module": the qualified exports below name io.latchkey.fair and io.latchkey.redlock, which are
// built after this module, so javac cannot find them here. The suppression covers this file only;
// -Xlint:module stays on for the rest.
@SuppressWarnings("module")
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
    // What a lock kind in another module builds on (see its package-info), to the two friends only.
    exports io.latchkey.spi to io.latchkey.fair, io.latchkey.redlock;

    uses io.latchkey.spi.LockKindProvider;
}
