import type { AreaProps } from '../../app/area';
import MemberDetailsPage from './MemberDetailsPage';
import MemberListPage from './MemberListPage';

/** /users (members list) and /users/{member_id}. */
export default function MembersArea({ page }: AreaProps) {
  return page === 'details' ? <MemberDetailsPage /> : <MemberListPage />;
}
