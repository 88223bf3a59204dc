/**
 * The Record Journey's circles in the organizations' badge colours (SPEC §2: BPS blue, FIA green,
 * CUS yellow, ADMIN purple, anything else gray): the fill, the edge (what sets the circle off the
 * white card: at least 3:1 against white) and the code written on it (at least 4.5:1 on the fill,
 * WCAG AA). White on antd's blue-6, green-6 and yellow-6 falls short (4.1, 2.3 and 1.4:1), so
 * BPS and FIA take the next darker shade (white 6.2:1, 5.6:1), and CUS stays yellow with antd's
 * darkest yellow for the code (6.3:1) and a dark-yellow edge (5.2:1 against white).
 */
export interface CircleColors {
  fill: string;
  edge: string;
  text: string;
}

export const JOURNEY_CIRCLE_COLORS: Readonly<Record<string, CircleColors>> = {
  BPS: { fill: '#0958d9', edge: '#0958d9', text: '#ffffff' },
  FIA: { fill: '#237804', edge: '#237804', text: '#ffffff' },
  CUS: { fill: '#fadb14', edge: '#876800', text: '#614700' },
  ADMIN: { fill: '#722ed1', edge: '#722ed1', text: '#ffffff' },
};

/** An organization NRAD does not know: gray (white 7.0:1). */
export const UNKNOWN_CIRCLE_COLORS: CircleColors = { fill: '#595959', edge: '#595959', text: '#ffffff' };

export const journeyCircleColors = (code: string): CircleColors => JOURNEY_CIRCLE_COLORS[code] ?? UNKNOWN_CIRCLE_COLORS;
