/// The operations a characteristic permits, carried in its type so that misuse does not compile.
///
/// Each capability is a marker protocol; an access type is an uninhabited enum that adopts the
/// capabilities of the characteristic. `connection.read(c)` requires `c`'s access to be
/// ``ReadAccess``, so reading a write-only characteristic is a compile-time error.
public protocol CharacteristicAccess: Sendable {}

/// The characteristic can be read.
public protocol ReadAccess: CharacteristicAccess {}
/// The characteristic can be written with a response.
public protocol WriteAccess: CharacteristicAccess {}
/// The characteristic can be written without a response.
public protocol WriteWithoutResponseAccess: CharacteristicAccess {}
/// The characteristic's value can be subscribed to (notifications or indications).
public protocol SubscribeAccess: CharacteristicAccess {}
/// The characteristic notifies.
public protocol NotifyAccess: SubscribeAccess {}
/// The characteristic indicates.
public protocol IndicateAccess: SubscribeAccess {}

/// Read only.
public enum Read: ReadAccess {}
/// Write (with response) only, like a control point without indications.
public enum Write: WriteAccess {}
/// Write without response only.
public enum WriteWithoutResponse: WriteWithoutResponseAccess {}
/// Notify only, like Heart Rate Measurement.
public enum Notify: NotifyAccess {}
/// Indicate only, like Blood Pressure Measurement.
public enum Indicate: IndicateAccess {}
/// Read and write.
public enum ReadWrite: ReadAccess, WriteAccess {}
/// Read and notify, like Battery Level.
public enum ReadNotify: ReadAccess, NotifyAccess {}
/// Read and indicate.
public enum ReadIndicate: ReadAccess, IndicateAccess {}
/// Write and notify, like a command channel whose answers come back as notifications.
public enum WriteNotify: WriteAccess, NotifyAccess {}
/// Write and indicate, like a record-access or heart-rate-style control point with responses.
public enum WriteIndicate: WriteAccess, IndicateAccess {}
/// Both write kinds.
public enum WriteBoth: WriteAccess, WriteWithoutResponseAccess {}
/// Read, write and notify.
public enum ReadWriteNotify: ReadAccess, WriteAccess, NotifyAccess {}
/// Write with and without response, and notify (a typical UART-style channel).
public enum WriteBothNotify: WriteAccess, WriteWithoutResponseAccess, NotifyAccess {}
