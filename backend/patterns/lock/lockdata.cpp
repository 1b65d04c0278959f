// SPDX-License-Identifier: MIT
#include "lockdata.h"

namespace gatehouse {

PatternData *LockData::clone() const
{
    return new LockData(*this);
}

} // namespace gatehouse
