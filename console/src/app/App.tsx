import { QueryClientProvider } from '@tanstack/react-query';
import { useState } from 'react';
import { Router } from 'wouter';
import { makeQueryClient } from './query-client';
import { AppRoutes } from './AppRoutes';

/** The console: server state (TanStack Query) and routes under /console (wouter). */
export function App() {
  const [queryClient] = useState(makeQueryClient);
  return (
    <QueryClientProvider client={queryClient}>
      <Router base="/console">
        <AppRoutes />
      </Router>
    </QueryClientProvider>
  );
}
