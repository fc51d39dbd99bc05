/**
 * Measuring and printing, shared by the benchmarks and the demo: a concurrent latency histogram
 * and a plain-text table. Internal to the benchmarks module; may change at any time.
 */
package io.latchkey.measure;
