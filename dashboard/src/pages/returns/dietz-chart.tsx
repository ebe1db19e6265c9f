import { useMemo } from 'react';
import {
  BarController,
  BarElement,
  CategoryScale,
  Chart as ChartJS,
  Legend,
  LinearScale,
  LineController,
  LineElement,
  PointElement,
  Tooltip,
  type ChartData,
  type ChartOptions,
  type TooltipItem,
} from 'chart.js';
import { Chart } from 'react-chartjs-2';
import type { CashTransaction } from './queries.ts';
import { formatMoney, formatShortDate } from './format.ts';
import type { ReturnDay } from './series.ts';
import type { BenchmarkLine } from './benchmark-series.ts';

// Only what this chart draws: bars, a line with points, two linear axes over date categories.
ChartJS.register(BarController, BarElement, LineController, LineElement, PointElement, CategoryScale, LinearScale, Tooltip, Legend);

const COLORS = {
  bar: '#2450d6b3',
  cumulative: '#1b6b34',
  flow: '#b35c00',
  benchmark: '#6a3d9a',
  grid: '#e3e6ec',
  text: '#525c6e',
};

type Value = number | null;
type MixedType = 'bar' | 'line';

/**
 * Daily Modified Dietz returns as bars (left axis) and their geometric linking as a line (right
 * axis), with a marker on the line for every day that had an external cash flow, and the assigned
 * benchmark's cumulative return over the same dates as a dashed line on the same axis. The canvas
 * is described by its aria-label; the same figures are in the table beside it.
 */
export function DietzChart({ days, flows, benchmark, label }: { days: ReturnDay[]; flows: CashTransaction[]; benchmark: BenchmarkLine | null; label: string }) {
  const { data, options } = useMemo(() => build(days, flows, benchmark), [days, flows, benchmark]);
  return (
    <div className="chart-box">
      <Chart<MixedType, Value[], string> type="bar" data={data} options={options} role="img" aria-label={label} fallbackContent={<p>{label}</p>} />
    </div>
  );
}

function build(days: ReturnDay[], flows: CashTransaction[], benchmark: BenchmarkLine | null) {
  const percent = (value: number | null) => (value === null ? null : value * 100);
  const data: ChartData<MixedType, Value[], string> = {
    labels: days.map((day) => formatShortDate(day.date)),
    datasets: [
      {
        type: 'line',
        label: 'Cumulative linked return',
        data: days.map((day) => percent(day.cumulative)),
        yAxisID: 'cumulative',
        borderColor: COLORS.cumulative,
        backgroundColor: COLORS.cumulative,
        borderWidth: 2.5,
        pointRadius: 2,
        tension: 0,
        order: 1,
      },
      {
        type: 'line',
        label: 'Cash flow day',
        data: days.map((day) => (day.netFlow !== 0 ? percent(day.cumulative) : null)),
        yAxisID: 'cumulative',
        showLine: false,
        pointStyle: 'triangle',
        pointRadius: 9,
        pointHoverRadius: 11,
        pointRotation: days.map((day) => (day.netFlow < 0 ? 180 : 0)),
        borderColor: '#ffffff',
        borderWidth: 1.5,
        backgroundColor: COLORS.flow,
        order: 0,
      },
      {
        type: 'bar',
        label: 'Daily return',
        data: days.map((day) => percent(day.value)),
        yAxisID: 'daily',
        backgroundColor: COLORS.bar,
        borderRadius: 3,
        maxBarThickness: 28,
        order: 2,
      },
    ],
  };
  if (benchmark) {
    data.datasets.push({
      type: 'line',
      label: `Benchmark: ${benchmark.name}`,
      data: benchmark.values.map(percent),
      yAxisID: 'cumulative',
      borderColor: COLORS.benchmark,
      backgroundColor: COLORS.benchmark,
      borderWidth: 2,
      borderDash: [6, 4],
      pointRadius: 0,
      pointHoverRadius: 4,
      pointStyle: 'line',
      tension: 0,
      order: 1,
    });
  }

  const cumulativeValues = [...data.datasets[0].data, ...(benchmark ? benchmark.values.map(percent) : [])];
  const [daily, cumulative] = alignZero([data.datasets[2].data, cumulativeValues]);
  const reducedMotion = window.matchMedia?.('(prefers-reduced-motion: reduce)').matches ?? false;
  // includeBounds: false keeps the zero-aligned bounds from showing up as odd tick labels.
  const axisTicks = { color: COLORS.text, includeBounds: false, callback: (value: string | number) => `${Number(value).toFixed(2)} %` };
  const options: ChartOptions<MixedType> = {
    responsive: true,
    maintainAspectRatio: false,
    animation: reducedMotion ? false : { duration: 400 },
    interaction: { mode: 'index', intersect: false },
    plugins: {
      legend: { position: 'bottom', labels: { color: COLORS.text, usePointStyle: true } },
      tooltip: {
        callbacks: {
          title: (items) => (items[0] ? (days[items[0].dataIndex]?.date ?? '') : ''),
          label: (item: TooltipItem<MixedType>) => tooltipLabel(item, days, flows),
        },
      },
    },
    scales: {
      x: { ticks: { color: COLORS.text, maxRotation: 0, autoSkipPadding: 12 }, grid: { display: false } },
      daily: {
        type: 'linear',
        position: 'left',
        ...daily,
        title: { display: true, text: 'Daily return (%)', color: COLORS.text },
        ticks: axisTicks,
        grid: { color: COLORS.grid },
      },
      cumulative: {
        type: 'linear',
        position: 'right',
        ...cumulative,
        title: { display: true, text: 'Cumulative return (%)', color: COLORS.cumulative },
        ticks: { ...axisTicks, color: COLORS.cumulative },
        grid: { display: false },
      },
    },
  };
  return { data, options };
}

/**
 * Bounds for the two value axes that put their zero lines at the same height, so a bar above
 * the zero line and the line above it both read as positive.
 */
function alignZero(series: Value[][]): { min?: number; max?: number }[] {
  const ranges = series.map((values) => {
    const numbers = values.filter((v): v is number => v !== null);
    return { min: Math.min(0, ...numbers), max: Math.max(0, ...numbers) };
  });
  const below = (r: { min: number; max: number }) => (r.max > r.min ? -r.min / (r.max - r.min) : 0);
  // The share of the height below zero: the largest any axis needs, kept off the edges.
  const share = Math.min(0.9, Math.max(...ranges.map(below)));
  if (share === 0 || ranges.some((r) => r.max === r.min)) return ranges.map(() => ({}));
  return ranges.map((r) => {
    const padded = { min: r.min * 1.08, max: r.max * 1.08 };
    return below(padded) < share
      ? { min: (-share * padded.max) / (1 - share), max: padded.max }
      : { min: padded.min, max: (-padded.min * (1 - share)) / share };
  });
}

function tooltipLabel(item: TooltipItem<MixedType>, days: ReturnDay[], flows: CashTransaction[]): string | string[] {
  const day = days[item.dataIndex];
  if (!day) return '';
  if (item.dataset.label === 'Cash flow day') {
    const lines = flows
      .filter((flow) => flow.date > day.startDate && flow.date <= day.date)
      .map((flow) => `  ${formatMoney(flow.amount, true)} ${flow.timing.replaceAll('_', ' ')}${flow.description ? ` — ${flow.description}` : ''}`);
    return [`Net cash flow: ${formatMoney(day.netFlow, true)}`, ...lines];
  }
  const value = item.parsed.y;
  if (value === null || value === undefined) return `${item.dataset.label}: undefined${day.nullReason ? ` (${day.nullReason})` : ''}`;
  return `${item.dataset.label}: ${value > 0 ? '+' : ''}${value.toFixed(4)} %`;
}
