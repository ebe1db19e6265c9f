export { noopMetrics, type Metrics, type MetricsExposition, type StreamTransport, type HttpRequestLabels, type OperationLabels } from './metrics.ts';
export { createPrometheusMetrics, type PrometheusMetrics, type JobQueueStat, type PoolCounters } from './prometheus-metrics.ts';
export { countingRefusals, measuredIngester } from './instrument.ts';
export { jobQueueStats } from './job-stats.ts';
