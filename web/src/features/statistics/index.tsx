import type { AreaProps } from '../../app/area';
import AreaUnavailable from '../../app/AreaUnavailable';

/**
 * The statistics area. routes.tsx sends every statistics route here with `page` naming which one
 * (see the route table); read path parameters with useParams(). Not built yet in this version.
 */
export default function Area(_props: AreaProps) {
  return <AreaUnavailable area="statistics" />;
}
