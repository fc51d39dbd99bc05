/**
 * Latchkey core: {@link io.latchkey.LockClient}, the reentrant lock, the watchdog and the
 * machinery that other lock kinds build on.
 */
module io.latchkey.core {
    // Not transitive: no public signature of io.latchkey mentions a Lettuce type, so an
    // application needs Lettuce on its module path but not in its own module-info.
    requires lettuce.core;
    requires io.netty.common;
    requires reactor.core;
    requires org.slf4j;

    exports io.latchkey;
    exports io.latchkey.internal.client to io.latchkey.fair, io.latchkey.redlock;
    exports io.latchkey.internal.lock to io.latchkey.fair, io.latchkey.redlock;
    exports io.latchkey.internal.redis to io.latchkey.fair, io.latchkey.redlock;
    exports io.latchkey.internal.wakeup to io.latchkey.fair, io.latchkey.redlock;
    exports io.latchkey.internal.watchdog to io.latchkey.fair, io.latchkey.redlock;

    uses io.latchkey.internal.client.LockKindProvider;
}
