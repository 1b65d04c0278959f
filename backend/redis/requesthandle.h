// SPDX-License-Identifier: MIT
#pragma once

#include <memory>

namespace gatehouse {

namespace Internal {
struct RequestState;
} // namespace Internal

// Refers to one request made through RedisClient. Cancelling drops the
// handler; a command already written to the socket still runs on the server.
class RequestHandle
{
public:
    RequestHandle() = default;
    void cancel();
    bool isActive() const; // neither answered nor cancelled

private:
    friend class RedisClient;
    explicit RequestHandle(std::weak_ptr<Internal::RequestState> state)
        : m_state(std::move(state))
    {}
    std::weak_ptr<Internal::RequestState> m_state;
};

} // namespace gatehouse
