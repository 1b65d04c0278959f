// SPDX-License-Identifier: MIT
#include "pickledecoder.h"

#include "decodebudget.h"
#include "picklemachine.h"

namespace gatehouse {

DecodeResult decodePickle(const QByteArray &input, DecodeBudget &budget)
{
    if (input.size() < 2 || input.back() != '.')
        return DecodeResult::failed(QStringLiteral("not a pickle (it does not end with STOP)"));
    Internal::PickleMachine machine(input, budget);
    DecodeResult r;
    if (!machine.run(&r.value))
        return DecodeResult::failed(machine.why());
    r.ok = true;
    r.name = machine.protocol() >= 2
                 ? QStringLiteral("pickle (protocol %1)").arg(machine.protocol())
                 : QStringLiteral("pickle");
    return r;
}

} // namespace gatehouse
