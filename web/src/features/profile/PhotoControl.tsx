import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import { useQueryClient } from '@tanstack/react-query';
import { useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { accountCall } from '../../api/client';
import type { Me } from '../../api/types';
import MemberAvatar from '../../components/MemberAvatar';

/** My photo (SPEC §3 Member 'photo'): shown with a button to choose a picture and one to remove it. */
export default function PhotoControl({ me, fallbackName }: { me: Me | undefined; fallbackName: string }) {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const input = useRef<HTMLInputElement>(null);
  const [busy, setBusy] = useState(false);
  const run = async (call: () => Promise<unknown>) => {
    setBusy(true);
    try {
      await call();
      await queryClient.invalidateQueries({ queryKey: ['users', 'me'] });
      await queryClient.invalidateQueries({ queryKey: ['members'] });
    } catch {
      /* the account client showed it */
    } finally {
      setBusy(false);
    }
  };
  const upload = (file: File) => {
    const form = new FormData();
    form.set('photo', file);
    return run(() => accountCall('/account/api/members/photo', { method: 'PUT', body: form, success: true }));
  };
  return (
    <Box sx={{ display: 'flex', flexDirection: 'column', alignItems: 'center', gap: 0.5 }}>
      <MemberAvatar person={me ?? { name: fallbackName }} size={64} />
      <input
        ref={input}
        type="file"
        accept="image/jpeg,image/png,image/webp"
        hidden
        aria-label={t('profile.photoFile')}
        onChange={(e) => {
          const f = e.target.files?.[0];
          e.target.value = '';
          if (f) void upload(f);
        }}
      />
      <Box sx={{ display: 'flex', gap: 0.5 }}>
        <Button size="small" disabled={busy} onClick={() => input.current?.click()}>
          {t('profile.photoChange')}
        </Button>
        {me?.photo && (
          <Button size="small" color="inherit" disabled={busy} onClick={() => void run(() => accountCall('/account/api/members/photo', { method: 'DELETE', success: true }))}>
            {t('profile.photoRemove')}
          </Button>
        )}
      </Box>
    </Box>
  );
}
