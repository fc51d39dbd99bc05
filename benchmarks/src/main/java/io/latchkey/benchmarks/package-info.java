/**
 * JMH benchmarks of Latchkey against Redisson, and the suite that runs them: every scenario for
 * both libraries against the same redis-server, with wait-time percentiles, client and Redis CPU,
 * Redis commands, and a mutual-exclusion check in every run. Entry point:
 * {@link io.latchkey.benchmarks.BenchmarkSuite#main(String[])}. Not an API; may change at any time.
 */
package io.latchkey.benchmarks;
