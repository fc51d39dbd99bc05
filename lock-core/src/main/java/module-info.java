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
    // Still exported, until the SPI offers narrow entry points for them:
    // - internal.lock: the kinds are built on the plain lock's machinery, reached through its
    //   LockContext (a record of the client's shared parts), served by LockFacade; the fair lock
    //   reuses ReentrantLockProtocol, HoldCalls, HoldScripts and LockKeys, RedLock drives each
    //   master's ReentrantLockProtocol.
    // - internal.redis: the kinds run their scripts through RedisExecutor (fair's replicated
    //   acquire through RedisExecutor.Replicated), and RedLock words its failures with
    //   LockExceptions, Failures and Redaction.
    exports io.latchkey.internal.lock to io.latchkey.fair, io.latchkey.redlock;
    exports io.latchkey.internal.redis to io.latchkey.fair, io.latchkey.redlock;
    // - internal.cohort: RedLock passes its quorum hold on locally through the plain lock's cohort,
    //   to which it gives its Redis side (CohortRedis) and from which it takes the lock (Cohorts).
    exports io.latchkey.internal.cohort to io.latchkey.redlock;

    uses io.latchkey.spi.LockKindProvider;
}
