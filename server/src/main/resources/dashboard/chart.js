// A time plot on uPlot (from its WebJar). Each chart keeps its data on the element as
// data-points and data-max, so tests and scripts can read what is drawn.
import uPlot from '/webjars/uplot/dist/uPlot.esm.js';

const COLORS = ['#2463eb', '#d92d20', '#039855', '#7a5af8', '#dc6803'];

export class TimeChart {
  constructor(container, title, seriesNames) {
    this.container = container;
    this.names = seriesNames;
    const width = Math.max(400, container.clientWidth - 16);
    const series = [{}].concat(seriesNames.map((name, i) => ({ label: name, stroke: COLORS[i % COLORS.length], width: 2 })));
    this.plot = new uPlot({ title, width, height: 220, series, scales: { x: { time: true } } },
      [[], ...seriesNames.map(() => [])], container);
  }

  // ts in epoch milliseconds; values is one array per series.
  set(ts, values) {
    this.plot.setData([ts.map(t => t / 1000), ...values]);
    let max = 0;
    for (const series of values) {
      for (const v of series) {
        if (v != null && v > max) {
          max = v;
        }
      }
    }
    this.container.dataset.points = String(ts.length);
    this.container.dataset.max = String(max);
  }

  destroy() {
    this.plot.destroy();
  }
}
