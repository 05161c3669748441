import type { AccountUserSettingsUpdate } from '@svc/client';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { client } from '../../../lib/client';

const usersKey = ['console-users'] as const;
const settingsKey = ['account-user-settings'] as const;

/** The account's console users, with whether each has set up two-step sign-in (account admins). */
export function useConsoleUsers() {
  return useQuery({ queryKey: usersKey, queryFn: ({ signal }) => client.users.list({ signal }) });
}

/** Removes a user's authenticator and recovery codes; their sessions end. */
export function useResetMfa() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (userId: string) => client.users.resetMfa(userId),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: usersKey }),
  });
}

export function useAccountUserSettings() {
  return useQuery({ queryKey: settingsKey, queryFn: ({ signal }) => client.users.settings({ signal }) });
}

export function useUpdateAccountUserSettings() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: AccountUserSettingsUpdate) => client.users.updateSettings(input),
    onSuccess: (settings) => queryClient.setQueryData(settingsKey, settings),
  });
}
