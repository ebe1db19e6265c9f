export { noopMetrics, type Metrics } from './metrics.ts';
export { createPrometheusMetrics } from './prometheus-metrics.ts';
export { countingRefusals, measuredIngester } from './instrument.ts';
export { jobQueueStats } from './job-stats.ts';
