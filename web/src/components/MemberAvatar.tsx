import Avatar from '@mui/material/Avatar';
import { useQuery } from '@tanstack/react-query';
import { apiBlob } from '../api/client';

export interface AvatarPerson {
  first_name?: string | null;
  last_name?: string | null;
  name?: string | null;
  email?: string | null;
  photo?: string | null;
}

/** Two letters for an avatar: initials of the first and last name, else the start of the name or e-mail. */
export function initialsOf(p: AvatarPerson | undefined): string {
  if (!p) return '';
  const first = p.first_name?.trim();
  const last = p.last_name?.trim();
  if (first || last) return `${first?.[0] ?? ''}${last?.[0] ?? ''}`.toUpperCase();
  return (p.name || p.email || '?').trim().slice(0, 2).toUpperCase();
}

/**
 * A member's photo loaded with the bearer (an <img> cannot send it); the URL carries a version, so one
 * fetch serves every avatar of that photo. Initials while it loads or when there is none.
 */
export function usePhoto(url: string | null | undefined): string | undefined {
  const { data } = useQuery({
    queryKey: ['member-photo', url],
    queryFn: async () => URL.createObjectURL((await apiBlob(url!, 'photo.jpg', { silent: true })).blob),
    enabled: !!url,
    staleTime: Infinity,
    meta: { background: true },
  });
  return url ? data : undefined;
}

export default function MemberAvatar({ person, size = 30 }: { person: AvatarPerson | undefined; size?: number }) {
  const src = usePhoto(person?.photo);
  return (
    <Avatar src={src} alt="" sx={{ width: size, height: size, fontSize: Math.round(size * 0.43), bgcolor: 'secondary.main' }}>
      {initialsOf(person)}
    </Avatar>
  );
}
