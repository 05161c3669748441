import type { ReactNode } from 'react';

/**
 * A wide table's container: it scrolls sideways on small screens (the page itself never does), and can be
 * focused so that keyboard users can scroll it too.
 */
export function ScrollRegion({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="scroll-region" role="region" aria-label={label} tabIndex={0}>
      {children}
    </div>
  );
}
