import type { ConsentQuery } from '@svc/client';
import { useMutation, useQuery } from '@tanstack/react-query';
import { client } from '../../../lib/client';

/** The authorization request of the page's query, as the consent screen shows it (checked by the server). */
export function useConsentRequest(query: ConsentQuery) {
  return useQuery({
    queryKey: ['oauth-consent', query],
    queryFn: ({ signal }) => client.partnerApps.describeConsent(query, { signal }),
    // A refused request stays refused: asking again would only repeat the answer.
    retry: false,
    staleTime: Number.POSITIVE_INFINITY,
  });
}

/** Approve or deny; the answer is where the browser goes next (the app's redirect URI). */
export function useConsentDecision(query: ConsentQuery) {
  return useMutation({
    mutationFn: (approve: boolean) => client.partnerApps.decideConsent({ ...query, approve }),
    onSuccess: (answer) => window.location.assign(answer.redirect_to),
  });
}
