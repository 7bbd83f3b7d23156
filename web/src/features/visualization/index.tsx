import type { AreaProps } from '../../app/area';
import AreaUnavailable from '../../app/AreaUnavailable';

/**
 * The visualization area. routes.tsx sends every visualization route here with `page` naming which one
 * (see the route table); read path parameters with useParams(). Not built yet in this version.
 */
export default function Area(_props: AreaProps) {
  return <AreaUnavailable area="visualization" />;
}
