import { type RefObject, useEffect, useRef } from 'react';

/**
 * A ref that is true while the component is on screen: work that outlives a screen (a search
 * answering, an upload being followed) checks it before it navigates, sets state or shows a toast.
 */
export function useMounted(): RefObject<boolean> {
  const mounted = useRef(true);
  useEffect(() => {
    mounted.current = true;
    return () => {
      mounted.current = false;
    };
  }, []);
  return mounted;
}
