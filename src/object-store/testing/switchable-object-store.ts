// Test helper: an ObjectStore wrapper that an unreachable bucket can be switched on and off in, to see what a
// process does while its store is down and once it is back.
import { StoreUnavailableError, type ObjectStore } from '../object-store.ts';
import { ForwardingObjectStore } from './forwarding-object-store.ts';

/** Forwards to the bucket, or fails every call as an unreachable store does, while `down`. */
export class SwitchableObjectStore extends ForwardingObjectStore {
  down = false;
  override get(...args: Parameters<ObjectStore['get']>) {
    return this.down ? Promise.reject(new StoreUnavailableError('get', undefined)) : super.get(...args);
  }
  override put(...args: Parameters<ObjectStore['put']>) {
    return this.down ? Promise.reject(new StoreUnavailableError('put', undefined)) : super.put(...args);
  }
  override delete(key: string) {
    return this.down ? Promise.reject(new StoreUnavailableError('delete', undefined)) : super.delete(key);
  }
  override list(...args: Parameters<ObjectStore['list']>) {
    return this.down ? Promise.reject(new StoreUnavailableError('list', undefined)) : super.list(...args);
  }
}
