import MuiBreadcrumbs from '@mui/material/Breadcrumbs';
import Link from '@mui/material/Link';
import Typography from '@mui/material/Typography';
import NavigateNextIcon from '@mui/icons-material/NavigateNext';
import { useTranslation } from 'react-i18next';
import { Link as RouterLink, matchRoutes, useLocation, type RouteObject } from 'react-router';
import { useCrumbNames } from './crumbNames';
import { MONO_FONT_STACK } from '../lib/fonts';

let registered: RouteObject[] = [];
/** routes.tsx registers its table so that crumbs link only to prefixes that are real pages. */
export function registerRoutes(routes: RouteObject[]): void {
  registered = routes;
}

function isPage(path: string): boolean {
  const matches = matchRoutes(registered, path);
  if (!matches?.length) return false;
  const leaf = matches[matches.length - 1].route;
  return leaf.path !== '*' && !(leaf.index && path !== '/');
}

export interface Crumb {
  label: string;
  to: string;
  /** a translated label (else the raw segment: an id) */
  known: boolean;
}

/** Pure: crumbs for a pathname; segments with a translation get it, ids are shown as they are. */
export function crumbsFor(pathname: string, translate: (segment: string) => string | null): Crumb[] {
  const segments = pathname.split('/').filter(Boolean);
  return segments.map((seg, i) => {
    let raw = seg;
    try {
      raw = decodeURIComponent(seg);
    } catch {
      /* keep raw */
    }
    const label = translate(raw);
    return { label: label ?? raw, known: label !== null, to: `/${segments.slice(0, i + 1).join('/')}` };
  });
}

export default function Breadcrumbs() {
  const { t, i18n } = useTranslation();
  const { pathname } = useLocation();
  const crumbs = crumbsFor(pathname, (s) => (i18n.exists(`crumbs.${s}`) ? t(`crumbs.${s}`) : null));
  // Ids become the dataset's, project's or prediction's name once the page has loaded it.
  const unknown = crumbs.filter((c) => !c.known);
  const names = useCrumbNames(unknown.map((c) => c.label));
  unknown.forEach((c, i) => {
    if (names[i]) Object.assign(c, { label: names[i], known: true });
  });
  if (!crumbs.length) return null;
  return (
    <MuiBreadcrumbs
      aria-label={t('nav.breadcrumbs')}
      separator={<NavigateNextIcon sx={{ fontSize: 16 }} />}
      sx={{ mb: 1.5, '& .MuiBreadcrumbs-li': { fontSize: 13 } }}
    >
      {crumbs.map((c, i) => {
        const last = i === crumbs.length - 1;
        if (last || !isPage(c.to)) {
          return (
            <Typography
              key={c.to}
              variant="body2"
              color={last ? 'text.primary' : 'text.secondary'}
              aria-current={last ? 'page' : undefined}
              sx={{ fontFamily: c.known ? undefined : MONO_FONT_STACK, fontSize: c.known ? 13 : 12 }}
            >
              {c.label}
            </Typography>
          );
        }
        return (
          <Link key={c.to} component={RouterLink} to={c.to} underline="hover" color="inherit" variant="body2">
            {c.label}
          </Link>
        );
      })}
    </MuiBreadcrumbs>
  );
}
