// Benchmark program (bench/bench.ts): the native program itself, run against the no-op plugin that this folder's
// Pulumi.yaml names, so the two kinds declare the very same resources and stack outputs.
export * from "../native/index.ts";
