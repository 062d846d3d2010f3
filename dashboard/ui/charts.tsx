// Charts drawn as SVG by hand: the few shapes the pages need (stacked columns, horizontal bars) in a few lines each,
// with no chart library in the bundle, styled by the app's own stylesheet, and readable without the picture (each
// chart has a title, and the figures are in the page as text and in the CSV).

export const palette = [
  "#0b3d91",
  "#c2410c",
  "#15803d",
  "#7c3aed",
  "#0e7490",
  "#be185d",
  "#a16207",
  "#4b5563",
  "#1d4ed8",
  "#b91c1c",
  "#047857",
];

export interface StackedColumn {
  label: string;
  parts: Array<{ key: string; value: number }>;
}

/** Columns of stacked parts (conversations per day by channel), with a legend. */
export function StackedColumns({ title, columns, keys }: { title: string; columns: StackedColumn[]; keys: string[] }) {
  const width = 720;
  const height = 220;
  const pad = { left: 36, bottom: 22, top: 10 };
  const max = Math.max(1, ...columns.map((c) => c.parts.reduce((sum, p) => sum + p.value, 0)));
  const step = (width - pad.left) / Math.max(columns.length, 1);
  const bar = Math.max(2, step * 0.7);
  const y = (value: number) => ((height - pad.bottom - pad.top) * value) / max;
  const colour = (key: string) => palette[keys.indexOf(key) % palette.length];
  const labelEvery = Math.ceil(columns.length / 8);
  return (
    <figure className="figure">
      <svg className="chart" viewBox={`0 0 ${width} ${height}`} role="img" aria-label={title}>
        <title>{title}</title>
        <line x1={pad.left} x2={width} y1={height - pad.bottom} y2={height - pad.bottom} stroke="#8a94a6" />
        <text x={pad.left - 6} y={pad.top + 8} textAnchor="end" fontSize="11" fill="#5a6478">
          {max}
        </text>
        <text x={pad.left - 6} y={height - pad.bottom} textAnchor="end" fontSize="11" fill="#5a6478">
          0
        </text>
        {columns.map((column, i) => {
          let base = height - pad.bottom;
          const x = pad.left + i * step + (step - bar) / 2;
          return (
            <g key={column.label}>
              {column.parts.map((part) => {
                const h = y(part.value);
                base -= h;
                return (
                  <rect key={part.key} x={x} y={base} width={bar} height={h} fill={colour(part.key)}>
                    <title>{`${column.label}: ${part.key} ${part.value}`}</title>
                  </rect>
                );
              })}
              {i % labelEvery === 0 && (
                <text x={x + bar / 2} y={height - 6} textAnchor="middle" fontSize="11" fill="#5a6478">
                  {column.label}
                </text>
              )}
            </g>
          );
        })}
      </svg>
      <figcaption>
        <ul className="legend">
          {keys.map((key) => (
            <li key={key}>
              <span className="swatch" style={{ background: colour(key) }} />
              {key}
            </li>
          ))}
        </ul>
      </figcaption>
    </figure>
  );
}

/** Horizontal bars with their values: top intents, escalation reasons. */
export function Bars({ title, items }: { title: string; items: Array<{ key: string; count: number }> }) {
  const max = Math.max(1, ...items.map((i) => i.count));
  return (
    <figure className="figure">
      <figcaption className="figure-title">{title}</figcaption>
      {items.length === 0 ? (
        <p className="muted">None in this period.</p>
      ) : (
        <ul className="bars">
          {items.map((item) => (
            <li key={item.key}>
              <span className="bar-label">{item.key}</span>
              <span className="bar-track" aria-hidden="true">
                <span className="bar" style={{ width: `${(100 * item.count) / max}%` }} />
              </span>
              <span>{item.count}</span>
            </li>
          ))}
        </ul>
      )}
    </figure>
  );
}
