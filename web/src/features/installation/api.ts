import { useQuery } from '@tanstack/react-query';
import type { components } from '../../api/schema';
import { answer, http, per } from '../../api/typed';

/** Shapes come from the server's OpenAPI document (server/src/features/installation/schemas.ts). */
export type InstallationSettings = components['schemas']['InstallationSettings'];
export type BankAccount = NonNullable<InstallationSettings['bank_account']>;

export const installationKey = ['installation'] as const;

export const useInstallationSettings = (enabled: boolean) =>
  useQuery({ queryKey: [...installationKey, 'settings'], queryFn: () => answer(http.GET('/api/installation/settings')), enabled });

/** Silent: a 422 is shown beside its field by the page. */
export const saveInstallationSettings = (body: { bank_account?: BankAccount | null; platform_review?: boolean }) =>
  answer(http.PUT('/api/installation/settings', { body, ...per({ silent: true }) }));
