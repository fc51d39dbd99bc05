/**
 * An application that uses Latchkey from the module path. It requires the core module only: the
 * fair lock and RedLock are found through the services that io.latchkey.fair and
 * io.latchkey.redlock provide, which the launcher binds without being told.
 */
module app {
    requires io.latchkey.core;
}
