/**
 * A picture of the dashboard's layout, drawn from its synthesized body (positions, titles, the
 * metrics each widget reads): what the guide shows before anything is deployed. It is the layout,
 * not data; values a deployment fills in (API ids, the table's name) appear as <placeholders>.
 */

// biome-ignore lint/suspicious/noExplicitAny: CloudFormation templates are untyped JSON.
type Json = any;

interface Widget {
  type: string;
  x: number;
  y: number;
  width: number;
  height: number;
  properties: { title?: string; metrics?: Json[]; alarms?: string[] };
}

/** A token's stand-in: an SSM parameter by its name's last part, anything else by its logical id. */
function placeholder(token: Json, parameters: Record<string, Json>): string {
  const ref = token?.Ref ?? token?.['Fn::GetAtt']?.[0];
  if (ref === 'AWS::Region') return '<region>';
  const parameter = parameters[ref];
  if (parameter?.Default) return `<${String(parameter.Default).split('/').pop()}>`;
  return `<${String(ref).replace(/[0-9A-F]{8}$/, '')}>`;
}

/** The dashboard body of a synthesized template, its tokens replaced by placeholders. */
export function dashboardBody(template: Json): { widgets: Widget[] } {
  const dashboard = Object.values(template.Resources as Record<string, Json>).find(
    (resource) => resource.Type === 'AWS::CloudWatch::Dashboard',
  );
  if (!dashboard) throw new Error('the template has no dashboard');
  const body = dashboard.Properties.DashboardBody;
  const text =
    typeof body === 'string'
      ? body
      : (body['Fn::Join'][1] as Json[])
          .map((part) => (typeof part === 'string' ? part : placeholder(part, template.Parameters ?? {})))
          .join('');
  return JSON.parse(text);
}

/** What one line of a widget's metrics reads, in words. */
function describeMetric(entry: Json[]): string {
  const options = entry.find((part) => typeof part === 'object' && part !== null) ?? {};
  if (options.expression) return `${options.label ?? ''}: ${options.expression}`;
  const [namespace, name, ...rest] = entry.filter((part) => typeof part === 'string');
  const dimensions = [];
  for (let index = 0; index + 1 < rest.length; index += 2)
    dimensions.push(`${rest[index]}=${rest[index + 1]}`);
  return `${options.label ? `${options.label}: ` : ''}${namespace} ${name} ${options.stat ?? ''} (${dimensions.join(', ')})`;
}

const UNIT_X = 50;
const UNIT_Y = 36;
const COLOURS = ['#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd', '#8c564b'];

const escapeXml = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** Clip a line to what fits in `width` pixels of 11 px text. */
const clip = (text: string, width: number) => {
  const fits = Math.floor(width / 6.2);
  return text.length > fits ? `${text.slice(0, fits - 1)}…` : text;
};

/** The layout as an SVG: one box per widget, its title, its metrics in words, and an empty plot. */
export function renderDashboardSvg(body: { widgets: Widget[] }, title: string): string {
  const width = 24 * UNIT_X;
  const height = Math.max(...body.widgets.map((widget) => (widget.y + widget.height) * UNIT_Y)) + 48;
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="Helvetica, Arial, sans-serif" role="img">`,
    `<title>${escapeXml(title)}</title>`,
    `<rect width="${width}" height="${height}" fill="#f2f3f3"/>`,
    `<text x="12" y="28" font-size="18" font-weight="bold" fill="#16191f">${escapeXml(title)}</text>`,
  ];
  for (const widget of body.widgets) {
    const x = widget.x * UNIT_X + 6;
    const y = widget.y * UNIT_Y + 42;
    const w = widget.width * UNIT_X - 12;
    const h = widget.height * UNIT_Y - 12;
    parts.push(`<rect x="${x}" y="${y}" width="${w}" height="${h}" rx="4" fill="#ffffff" stroke="#d5dbdb"/>`);
    parts.push(
      `<text x="${x + 10}" y="${y + 20}" font-size="13" font-weight="bold" fill="#16191f">${escapeXml(clip(widget.properties.title ?? '', w - 20))}</text>`,
    );
    const lines =
      widget.type === 'alarm'
        ? (widget.properties.alarms ?? []).map((alarm) => `alarm ${alarm}`)
        : (widget.properties.metrics ?? []).map(describeMetric);
    const plotTop = y + 30;
    const legendTop = widget.type === 'alarm' ? plotTop : y + h - 12 * lines.length - 8;
    if (widget.type !== 'alarm') {
      // The plot area: axes only, no invented data.
      parts.push(
        `<path d="M${x + 10} ${plotTop} V${legendTop - 8} H${x + w - 10}" fill="none" stroke="#aab7b8"/>`,
      );
    }
    // Alarms in three columns (state lights), metrics as the graph's legend.
    const columns = widget.type === 'alarm' ? 3 : 1;
    const rows = Math.ceil(lines.length / columns);
    const columnWidth = (w - 20) / columns;
    lines.forEach((line, index) => {
      const lx = x + 10 + Math.floor(index / rows) * columnWidth;
      const ly = (widget.type === 'alarm' ? plotTop + 4 : legendTop) + (index % rows) * 12;
      const colour = widget.type === 'alarm' ? '#aab7b8' : COLOURS[index % COLOURS.length];
      parts.push(`<rect x="${lx}" y="${ly - 8}" width="8" height="8" fill="${colour}"/>`);
      parts.push(
        `<text x="${lx + 12}" y="${ly}" font-size="10" fill="#414d5c">${escapeXml(clip(line, columnWidth - 16))}</text>`,
      );
    });
  }
  parts.push('</svg>');
  return `${parts.join('\n')}\n`;
}
