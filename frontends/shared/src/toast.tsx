import { notification } from 'antd';
import { createContext, type ReactNode, useContext, useMemo } from 'react';

/** How long a toast stays (SPEC §9: default display 5000 ms). */
export const TOAST_SECONDS = 5;

export interface Toast {
  success(title: string, description?: string): void;
  error(title: string, description?: string): void;
}

const ToastContext = createContext<Toast | null>(null);

/**
 * The app's one toast queue (SPEC §8 toasts: a title and a description), at most one visible at
 * a time. The shell renders it once; every remote reaches it through useToast (the provider and
 * the hook come from the one shared instance of this module).
 */
export function ToastProvider({ children }: { children: ReactNode }) {
  const [api, holder] = notification.useNotification({ maxCount: 1, placement: 'topRight' });
  const toast = useMemo<Toast>(
    () => ({
      success: (title, description) => api.success({ title, description, duration: TOAST_SECONDS }),
      error: (title, description) => api.error({ title, description, duration: TOAST_SECONDS }),
    }),
    [api],
  );
  return (
    <ToastContext.Provider value={toast}>
      {holder}
      {children}
    </ToastContext.Provider>
  );
}

export function useToast(): Toast {
  const toast = useContext(ToastContext);
  if (!toast) throw new Error('useToast outside ToastProvider');
  return toast;
}
