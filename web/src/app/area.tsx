import type { ComponentType } from 'react';
import { lazyWithTimeout } from './lazy';

/** What routes.tsx hands an area: which of its pages this route is. Read URL parameters with useParams(). */
export interface AreaProps {
  page: string;
}

/** One lazily loaded chunk per area folder (web/src/features/<area>/index.tsx). */
export function area(load: () => Promise<{ default: ComponentType<AreaProps> }>) {
  const Lazy = lazyWithTimeout(load);
  return function Area(props: AreaProps) {
    return <Lazy {...props} />;
  };
}
