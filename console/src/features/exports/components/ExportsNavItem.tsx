import type { ReactNode } from 'react';
import { useCanExport } from '../access';

/** The Export page's item of the main navigation, for roles that may export; the link is the Layout's own. */
export function ExportsNavItem({ children }: { children: ReactNode }) {
  return useCanExport() ? <li>{children}</li> : null;
}
