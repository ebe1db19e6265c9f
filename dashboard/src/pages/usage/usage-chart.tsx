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
} from 'chart.js';
import { Chart } from 'react-chartjs-2';

// The returns page's chart library, with only what this chart draws: bars and a line over time categories.
ChartJS.register(BarController, BarElement, LineController, LineElement, PointElement, CategoryScale, LinearScale, Tooltip, Legend);

const COLORS = { requests: '#2450d6b3', errors: '#b3261e', grid: '#e3e6ec', text: '#525c6e' };

/** One bucket of the chart: requests and errors of the chosen credential in an hour or a day. */
export interface UsagePoint {
  label: string;
  requests: number;
  errors: number;
}

type MixedType = 'bar' | 'line';

/** Requests as bars and errors as a line, per hour or day, on one count axis. The table beside it has the same figures. */
export function UsageChart({ points, label }: { points: UsagePoint[]; label: string }) {
  const { data, options } = useMemo(() => build(points), [points]);
  return (
    <div className="usage-chart">
      <Chart<MixedType, number[], string> type="bar" data={data} options={options} role="img" aria-label={label} fallbackContent={<p>{label}</p>} />
    </div>
  );
}

function build(points: UsagePoint[]) {
  const data: ChartData<MixedType, number[], string> = {
    labels: points.map((point) => point.label),
    datasets: [
      {
        type: 'line',
        label: 'Errors',
        data: points.map((point) => point.errors),
        borderColor: COLORS.errors,
        backgroundColor: COLORS.errors,
        borderWidth: 2,
        pointRadius: 2.5,
        tension: 0,
        order: 0,
      },
      {
        type: 'bar',
        label: 'Requests',
        data: points.map((point) => point.requests),
        backgroundColor: COLORS.requests,
        borderRadius: 3,
        maxBarThickness: 28,
        order: 1,
      },
    ],
  };
  const reducedMotion = window.matchMedia?.('(prefers-reduced-motion: reduce)').matches ?? false;
  const options: ChartOptions<MixedType> = {
    responsive: true,
    maintainAspectRatio: false,
    animation: reducedMotion ? false : { duration: 400 },
    interaction: { mode: 'index', intersect: false },
    plugins: { legend: { position: 'bottom', labels: { color: COLORS.text, usePointStyle: true } } },
    scales: {
      x: { ticks: { color: COLORS.text, maxRotation: 0, autoSkipPadding: 12 }, grid: { display: false } },
      y: {
        beginAtZero: true,
        ticks: { color: COLORS.text, precision: 0 },
        grid: { color: COLORS.grid },
        title: { display: true, text: 'Count', color: COLORS.text },
      },
    },
  };
  return { data, options };
}
