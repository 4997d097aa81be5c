import HaraldCodec
import HaraldProfiles
import PropertyBased

/// Generators of valid characteristic values, for encode → decode round-trip properties.
enum ProfileGen {
    static let sfloat = Gen.uint16().map { MedicalFloat16(bitPattern: $0) }
    static let float32 = Gen.uint32().map { MedicalFloat32(bitPattern: $0) }

    static let dateTime = zip(
        Gen.uint16(), Gen.uint8(in: 0...12), Gen.uint8(in: 0...31), Gen.uint8(in: 0...23), Gen.uint8(in: 0...59),
        Gen.uint8(in: 0...59)
    ).map { DateTime(year: $0.0, month: $0.1, day: $0.2, hours: $0.3, minutes: $0.4, seconds: $0.5) }

    static let heartRate = zip(
        Gen.uint16(), Gen.bool, Gen.uint8(in: 0...2), Gen.uint16().optional, Gen.uint16().array(of: 0...30), Gen.uint8(in: 0...7)
    ).map { rate, wide, contact, energy, intervals, reserved in
        var value = HeartRateMeasurement(
            heartRate: rate, sensorContact: [.notSupported, .notDetected, .detected][Int(contact)],
            energyExpended: energy, rrIntervals: RRIntervals(intervals), format: rate > 0xFF || wide ? .uint16 : .uint8)
        value.reservedFlags = reserved << 5
        return value
    }

    static let bloodPressureStatus = Gen.uint16().map { BloodPressureMeasurementStatus(rawValue: $0) }

    static let bloodPressure = zip(
        sfloat, sfloat, sfloat, Gen.bool, dateTime.optional, sfloat.optional, Gen.uint8().optional,
        bloodPressureStatus.optional, Gen.uint8(in: 0...7)
    ).map { systolic, diastolic, map, kPa, timestamp, pulse, user, status, reserved in
        var value = BloodPressureMeasurement(
            systolic: systolic, diastolic: diastolic, meanArterialPressure: map, unit: kPa ? .kPa : .mmHg,
            timestamp: timestamp, pulseRate: pulse, userID: user, measurementStatus: status)
        value.reservedFlags = reserved << 5
        return value
    }

    static let cuffPressure = zip(sfloat, Gen.bool, dateTime.optional, sfloat.optional, Gen.uint8().optional, bloodPressureStatus.optional)
        .map { pressure, kPa, timestamp, pulse, user, status in
            IntermediateCuffPressure(
                currentCuffPressure: pressure, unit: kPa ? .kPa : .mmHg, timestamp: timestamp, pulseRate: pulse, userID: user,
                measurementStatus: status)
        }

    static let temperature = zip(float32, Gen.bool, dateTime.optional, Gen.uint8().optional, Gen.uint8(in: 0...31))
        .map { value, fahrenheit, timestamp, type, reserved in
            var measurement = TemperatureMeasurement(
                temperature: value, unit: fahrenheit ? .fahrenheit : .celsius, timestamp: timestamp,
                temperatureType: type.map(TemperatureType.init(code:)))
            measurement.reservedFlags = reserved << 3
            return measurement
        }

    static let concentration = zip(sfloat, Gen.bool, Gen.uint8(in: 0...15), Gen.uint8(in: 0...15)).map { value, mol, type, location in
        GlucoseMeasurement.Concentration(
            value: value, unit: mol ? .molesPerLitre : .kilogramsPerLitre, type: GlucoseSampleType(code: type),
            sampleLocation: GlucoseSampleLocation(code: location))
    }

    static let glucose = zip(
        Gen.uint16(), dateTime, Gen.int16().optional, concentration.optional, Gen.uint16().optional, Gen.bool, Gen.uint8(in: 0...7)
    ).map { sequence, base, offset, concentration, status, context, reserved in
        var value = GlucoseMeasurement(
            sequenceNumber: sequence, baseTime: base, timeOffset: offset, concentration: concentration,
            sensorStatus: status.map { Flags(rawValue: $0) }, contextInformationFollows: context)
        value.reservedFlags = reserved << 5
        return value
    }

    static let weight = zip(
        Gen.uint16(), Gen.bool, dateTime.optional, Gen.uint8().optional, zip(Gen.uint16(), Gen.uint16()).optional
    ).map { raw, imperial, timestamp, user, bmiAndHeight in
        WeightMeasurement(
            rawWeight: raw, units: imperial ? .imperial : .si, timestamp: timestamp, userID: user, rawBMI: bmiAndHeight?.0,
            rawHeight: bmiAndHeight?.1)
    }

    static let csc = zip(zip(Gen.uint32(), Gen.uint16()).optional, zip(Gen.uint16(), Gen.uint16()).optional).map { wheel, crank in
        CSCMeasurement(
            wheel: wheel.map { .init(cumulativeRevolutions: $0.0, lastEventTime: $0.1) },
            crank: crank.map { .init(cumulativeRevolutions: $0.0, lastEventTime: $0.1) })
    }

    static let rsc = zip(Gen.uint16(), Gen.uint8(), Gen.uint16().optional, Gen.uint32().optional, Gen.bool).map {
        RSCMeasurement(rawSpeed: $0, cadence: $1, rawStrideLength: $2, rawTotalDistance: $3, isRunning: $4)
    }

    static let plxStatus = Gen.uint16().map { Flags<PLXMeasurementStatus, UInt16>(rawValue: $0) }
    static let plxDeviceStatus = Gen.uint32(in: 0...0xFF_FFFF).map { Flags<PLXDeviceAndSensorStatus, UInt32>(rawValue: $0) }
    static let plxReading = zip(sfloat, sfloat).map { PLXContinuousMeasurement.Reading(spO2: $0, pulseRate: $1) }

    static let plxSpotCheck = zip(
        sfloat, sfloat, dateTime.optional, plxStatus.optional, plxDeviceStatus.optional, sfloat.optional, Gen.bool
    ).map {
        PLXSpotCheckMeasurement(
            spO2: $0, pulseRate: $1, timestamp: $2, measurementStatus: $3, deviceAndSensorStatus: $4, pulseAmplitudeIndex: $5,
            deviceClockNotSet: $6)
    }

    static let plxContinuous = zip(
        plxReading, plxReading.optional, plxReading.optional, plxStatus.optional, plxDeviceStatus.optional, sfloat.optional
    ).map {
        PLXContinuousMeasurement(
            normal: $0, fast: $1, slow: $2, measurementStatus: $3, deviceAndSensorStatus: $4, pulseAmplitudeIndex: $5)
    }

    static let plxFeatures = zip(Gen.uint16(), plxStatus.optional, plxDeviceStatus.optional).map {
        PLXFeatures(supportedFeatures: Flags(rawValue: $0), measurementStatusSupport: $1, deviceAndSensorStatusSupport: $2)
    }

    static let currentTime = zip(dateTime, Gen<DayOfWeek>.case, Gen.uint8(), Gen.uint8()).map {
        CurrentTime(dateTime: $0, dayOfWeek: $1, fractions256: $2, adjustReason: Flags(rawValue: $3))
    }

    static let timeZone = Gen.int8(in: -48...56).map { TimeZoneOffset(quarterHours: $0)! }

    static let localTime = zip(timeZone, Gen<DSTOffset>.case).map { LocalTimeInformation(timeZone: $0, dstOffset: $1) }

    static let text = Gen.letterOrNumber.string(of: 0...40)

    static let presentationFormat = zip(Gen.uint8(), Gen.int8(), Gen.uint16(), Gen.uint8(), Gen.uint16()).map {
        CharacteristicPresentationFormat(
            format: .init(code: $0), exponent: $1, unit: $2, namespace: $3, descriptionCode: $4)
    }

    static let pnpID = zip(Gen.uint8(), Gen.uint16(), Gen.uint16(), Gen.uint16()).map {
        PnPID(vendorIDSource: .init(code: $0), vendorID: $1, productID: $2, productVersion: $3)
    }

    static let systemID = zip(Gen.uint64(in: 0...0xFF_FFFF_FFFF), Gen.uint32(in: 0...0xFF_FFFF)).map {
        SystemID(manufacturerIdentifier: $0, organizationallyUniqueIdentifier: $1)!
    }

    static let serviceChanged = zip(Gen.uint16(in: 1...0xFFFF), Gen.uint16()).compactMap {
        ServiceChanged(startHandle: $0, endHandle: $1)
    }
}
