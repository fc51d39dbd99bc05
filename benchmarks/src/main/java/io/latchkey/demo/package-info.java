/**
 * The demo, the README's main command: several application instances, each with its own
 * {@link io.latchkey.LockClient} and worker threads, sell a limited stock under one lock, and
 * the run proves that every item was sold exactly once. Entry point:
 * {@link io.latchkey.demo.StockDemo#main(String[])}. Not an API; may change at any time.
 */
package io.latchkey.demo;
